"""Starter bot: plays low, keeps 2s, 10s, jokers. Run: python docs/starter_bot.py --port 7433 --games 3 [--create]"""

from client.bot import Bot
from client.hosting.command import main
from protocol.payloads import View

ORDER = "3456789JQKA2TX"  # low to high: 2s, 10s and jokers are worth keeping, so they go last


class LowestFirst(Bot):
    name = "starter"

    def choose(self, view: View) -> str:
        plays = [a for a in view["legal"] if a.startswith("play ")]  # "play 7h 7d": rank is a[5]
        keep = [a for a in view["legal"] if a == "ready" or a.startswith("place ")]  # setup: cards as dealt, ready
        return min(plays, key=lambda a: (ORDER.index(a[5]), -len(a))) if plays else max(keep, default=view["legal"][0])


if __name__ == "__main__":
    raise SystemExit(main(bot=LowestFirst()))
