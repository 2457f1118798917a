"""The ladder: bots matched continuously while connected and idle, rated per preset and overall."""
