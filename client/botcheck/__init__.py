"""``shithead-bot-check``: a bot author's rehearsal before a tournament.

It starts a private server, runs the author's bot program through a gauntlet
(:mod:`.gauntlet`: every preset, 2 to 6 seats, the connection cut mid-game, a short clock, the
bundled bots as opponents) with a wire tap between bot and server (:mod:`.tap`) whose referee
(:mod:`.referee`) explains every refusal and timeout with its frames, and reports (:mod:`.report`).
"""
