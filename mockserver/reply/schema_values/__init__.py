"""The JSON-Schema value generator: values that validate against a request's schema."""
