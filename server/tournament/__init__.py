"""Tournaments of bots on the server: schedules with duplicate deals (``schedule``), ratings and
standings (``standings``) and the director that decides which games to play next (``director``),
all three pure and shared with the client-side organiser (``client.tournament``); and the
server's tournament service (``service``)."""
