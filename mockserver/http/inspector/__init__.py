"""The inspector page's files: ``page.html`` (a template), ``inspector.js``, ``inspector.css``."""
