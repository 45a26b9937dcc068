"""Fake model replies: values for JSON Schemas and friends."""
