"""Tournaments of bots: schedules with duplicate deals, ratings and standings, results files,
and the server-side tournament director."""
