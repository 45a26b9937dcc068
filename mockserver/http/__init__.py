"""Everything that speaks HTTP: the app, its endpoints, access, the server, the recording proxy."""
