"""Knowledge base: compatibility tables and known errors, as data with sources."""
