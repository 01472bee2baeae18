"""HTTP entrypoints: one blueprint per resource."""
