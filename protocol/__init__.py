"""The wire protocol shared by server and client (to come)."""
