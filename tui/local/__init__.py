"""What giftdesk keeps on this machine: profiles, audit log, recent orders, logs, files (no Textual)."""
