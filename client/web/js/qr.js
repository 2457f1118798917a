// QR codes of short addresses (a table's invitation link), made on the page: byte mode, error
// correction level M, versions 1 to 10 (up to 213 bytes), the mask with the lowest penalty.
// The algorithm of ISO/IEC 18004 as Project Nayuki's reference implementation lays it out;
// tests/web/test_qr_js.py holds its modules equal to segno's (the server's QR library). Pure.

// Level M, versions 1..10: [error correction codewords per block, blocks, data codewords in a short block, long blocks]
const BLOCKS = [null, [10, 1, 16, 0], [16, 1, 28, 0], [26, 1, 44, 0], [18, 2, 32, 0], [24, 2, 43, 0], [16, 4, 27, 0], [18, 4, 31, 0], [22, 4, 38, 2], [22, 5, 36, 2], [26, 5, 43, 1]];
const ALIGN = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
const LEVEL_M = 0; // the format bits of level M

function gfMul(x, y) {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

function rsDivisor(degree) {
  const result = new Array(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gfMul(result[j], root);
      if (j + 1 < degree) result[j] ^= result[j + 1];
    }
    root = gfMul(root, 0x02);
  }
  return result;
}

function rsRemainder(data, divisor) {
  const result = divisor.map(() => 0);
  for (const b of data) {
    const factor = b ^ result.shift();
    result.push(0);
    divisor.forEach((coef, i) => (result[i] ^= gfMul(coef, factor)));
  }
  return result;
}

function capacityOf(v) {
  const [, blocks, short, long] = BLOCKS[v];
  return blocks * short + long;
}

/** The data codewords of `bytes` at version `v`: byte mode, terminator, padding. */
export function dataCodewords(bytes, v) {
  const bits = [];
  const put = (value, n) => {
    for (let i = n - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  put(0b0100, 4);
  put(bytes.length, v < 10 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  const capacity = capacityOf(v) * 8;
  put(0, Math.min(4, capacity - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  return data;
}

/** The data codewords with their error correction, in blocks, interleaved. */
function codewords(data, v) {
  const [ec, blocks, short, long] = BLOCKS[v];
  const divisor = rsDivisor(ec);
  const parts = [];
  for (let i = 0, at = 0; i < blocks; i++) {
    const n = short + (i >= blocks - long ? 1 : 0);
    const dat = data.slice(at, at + n);
    at += n;
    parts.push({ dat, ecc: rsRemainder(dat, divisor) });
  }
  const out = [];
  for (let i = 0; i <= short; i++) for (const p of parts) if (i < p.dat.length) out.push(p.dat[i]);
  for (let i = 0; i < ec; i++) for (const p of parts) out.push(p.ecc[i]);
  return out;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** The function patterns (finders, timing, alignment, version) of version `v`, and which
 * modules they take (so that data avoids them and masks leave them alone). */
function template(v) {
  const size = 17 + 4 * v;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (x, y, on) => {
    dark[y][x] = on;
    fixed[y][x] = true;
  };
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, d !== 2 && d !== 4);
      }
    }
  }
  const at = ALIGN[v];
  const last = at.length - 1;
  at.forEach((ax, i) =>
    at.forEach((ay, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }),
  );
  formatBits(set, size, 0); // reserves the format areas (drawn again with the mask chosen)
  if (v >= 7) {
    let rem = v;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (v << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const on = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(a, b, on);
      set(b, a, on);
    }
  }
  return { size, dark, fixed, set };
}

function formatBits(set, size, mask) {
  const data = (LEVEL_M << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const bit = (i) => ((bits >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) set(8, i, bit(i));
  set(8, 7, bit(6));
  set(8, 8, bit(7));
  set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
  set(8, size - 8, true); // the dark module
}

function penalty(m) {
  const size = m.length;
  let score = 0;
  const lines = [];
  for (let i = 0; i < size; i++) {
    lines.push(m[i]);
    lines.push(m.map((row) => row[i]));
  }
  const finder = [true, false, true, true, true, false, true];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else {
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
    }
    for (let i = 0; i + 7 <= size; i++) {
      if (!finder.every((b, k) => line[i + k] === b)) continue;
      const lightBefore = i >= 4 && [1, 2, 3, 4].every((k) => !line[i - k]);
      const lightAfter = i + 11 <= size && [7, 8, 9, 10].every((k) => !line[i + k]);
      if (lightBefore) score += 40;
      if (lightAfter) score += 40;
    }
  }
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0; x + 1 < size; x++) {
      const c = m[y][x];
      if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
    }
  }
  const dark = m.reduce((a, row) => a + row.filter(Boolean).length, 0);
  const total = size * size;
  score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}

/** The modules of the QR code of `text` (rows of booleans, true: dark), the smallest version
 * that holds it; `mask` 0..7 forces a mask (else the one with the lowest penalty). */
export function qrMatrix(text, { mask = null } = {}) {
  const bytes = [...new TextEncoder().encode(text)];
  let v = 1;
  while (v <= 10 && bytes.length + (v < 10 ? 2 : 3) > capacityOf(v)) v++;
  if (v > 10) throw new RangeError("too long for a QR code of version 10");
  return matrixOf(dataCodewords(bytes, v), v, mask);
}

/** The modules of a version `v` code holding the data codewords `data` (see qrMatrix). */
export function matrixOf(data, v, mask = null) {
  const words = codewords(data, v);
  const { size, dark, fixed } = template(v);
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const upward = ((right + 1) & 2) === 0;
        const y = upward ? size - 1 - vert : vert;
        if (!fixed[y][x] && i < words.length * 8) {
          dark[y][x] = ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }
  const masked = (k) => {
    const m = dark.map((row, y) => row.map((on, x) => (fixed[y][x] ? on : on !== MASKS[k](x, y))));
    formatBits((x, y, on) => (m[y][x] = on), size, k);
    return m;
  };
  if (mask !== null) return masked(mask);
  let best = null;
  for (let k = 0; k < 8; k++) {
    const m = masked(k);
    const p = penalty(m);
    if (best === null || p < best.p) best = { m, p };
  }
  return best.m;
}

/** The QR code of `text` as an SVG element's markup, with a quiet zone of 4 modules. */
export function qrSvg(text) {
  const m = qrMatrix(text);
  const n = m.length + 8;
  let path = "";
  m.forEach((row, y) => row.forEach((on, x) => (path += on ? `M${x + 4} ${y + 4}h1v1h-1z` : "")));
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${n} ${n}" shape-rendering="crispEdges" aria-hidden="true"><rect width="${n}" height="${n}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
