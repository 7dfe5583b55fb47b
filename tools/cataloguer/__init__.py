"""The parts of tools/catalogue.py: archives read, messages extracted (Python sites, library
strings, status tables), rows classified, matched and written, coverage reported."""
