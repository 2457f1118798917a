"""A bot on the SDK whose ``choose`` raises at every third call (the runner plays the first
legal action instead and logs the traceback): the server sees nothing wrong."""

from client.bot import Bot
from client.hosting.command import main
from protocol.payloads import View


class EveryThirdRaises(Bot):
    name = "every-third"
    calls = 0

    def choose(self, view: View) -> str:
        self.calls += 1
        if self.calls % 3 == 0:
            raise ValueError(f"every third move (call {self.calls})")
        keep = [a for a in view["legal"] if a == "ready" or a.startswith("place ")]
        return max(keep, default=view["legal"][0])


if __name__ == "__main__":
    raise SystemExit(main(bot=EveryThirdRaises()))
