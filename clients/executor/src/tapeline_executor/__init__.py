"""Local signal executor for tapeline webhooks (copy.executed, strategy.signal, followed trades)."""
