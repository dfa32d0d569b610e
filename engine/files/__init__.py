"""Files knap reads and writes for any stage: confined reading, whole-or-nothing writing, strict JSON, the bundled resources."""
