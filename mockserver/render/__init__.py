"""Reply → wire shapes. Pure: no I/O, no sleeping, no randomness."""
