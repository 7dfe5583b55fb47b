"""The shapes every part passes along: records, versions, facts and what is derived from
them, findings, the finished report."""
