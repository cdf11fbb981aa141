"""The fleet context (what the rules know of the fleet), its JSON Schema, and the settings of a lint run, the policy pack and the webhook.

Part of the core (no adapter imports it back); see docs/architecture.md."""
