"""Who is at the other end: login and accounts (``accounts``), identities (``identity``),
passwords and tokens (``auth``), and the throttle on failed logins (``throttle``).
"""
