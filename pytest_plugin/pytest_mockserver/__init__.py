"""pytest plugin for mockserver (auto-loaded through the ``pytest11`` entry point)."""
