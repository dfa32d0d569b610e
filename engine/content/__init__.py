"""The content pipeline's front: YAML read safely, packs found and composed, documents checked against the schemas."""
