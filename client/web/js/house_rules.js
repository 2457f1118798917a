// The house-rules controls of the new-table form: one control per option the server's catalogue
// offers (catalog.json `options`: a checkbox for yes/no, a number within its range, a menu of
// its words), each labelled in plain words with its line of help, starting from the chosen
// preset's values. Only what the player changed is sent, as the `options` of create_table.

import { h } from "./ui.js";

/** The id of an option's control. */
export const controlId = (name) => `opt-${name}`;

/** The options to send: those of `values` (name -> value read off the controls) that differ
 * from the preset's own (`preset`: name -> value), or undefined when none does. */
export function optionChanges(preset, values) {
  const out = {};
  for (const [name, value] of Object.entries(values)) {
    if (name in preset && preset[name] !== value) out[name] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The value a control holds, typed as the option is. */
export function readControl(form, el) {
  if (form.kind === "bool") return el.checked;
  if (form.kind === "int") return Number(el.value);
  return el.value;
}

/** One labelled control per option of `forms`, set to `values` (the preset's). */
export function houseRulesEls(forms, values) {
  return forms.map((f) => {
    const id = controlId(f.name);
    const about = `${id}-about`;
    const attrs = { id, name: f.name, "aria-describedby": about, dataset: { option: f.name } };
    let control;
    if (f.kind === "bool") control = h("input", { ...attrs, type: "checkbox", checked: Boolean(values[f.name]) });
    else if (f.kind === "int") control = h("input", { ...attrs, type: "number", min: String(f.min), max: String(f.max), step: "1", inputmode: "numeric", value: String(values[f.name]) });
    else control = h("select", attrs, f.choices.map((c) => h("option", { value: c, selected: c === values[f.name] }, c)));
    return h(
      "div",
      { class: `house-rule ${f.kind}` },
      h("label", { for: id }, f.label),
      control,
      h("p", { class: "hint quiet", id: about }, f.help),
    );
  });
}

/** Set every control under `root` to the preset's `values` (the preset was changed). */
export function setControls(root, forms, values) {
  for (const f of forms) {
    const el = root.querySelector(`#${controlId(f.name)}`);
    if (!el || !(f.name in values)) continue;
    if (f.kind === "bool") el.checked = Boolean(values[f.name]);
    else el.value = String(values[f.name]);
  }
}

/** What the controls under `root` hold, name -> typed value. */
export function readControls(root, forms) {
  const out = {};
  for (const f of forms) {
    const el = root.querySelector(`#${controlId(f.name)}`);
    if (el) out[f.name] = readControl(f, el);
  }
  return out;
}
