"""What vulture (a dead-code finder) cannot see being used, with why. tests/test_dead_code.py
runs it over the package with this file and the flags it names (VULTURE_ARGS there), as

    vulture torchdoctor tools/vulture_whitelist.py --min-confidence 60 \
        --ignore-decorators "@rule,@hook,@click.command,@click.group,@_command" \
        --ignore-names "pytest_*,_repr_*_,visit_*,leave_*,load_ipython_extension,unload_ipython_extension,__getattr__,list_commands,get_command,readable,writable"

The flags cover what is called by name from outside: @rule functions (listed in each family's
registry tuple, which vulture reads as use only for some), @hook tailoring functions (found by
the id in a known-error entry), click commands, pytest and IPython hooks, libcst and ast
visitor methods, module __getattr__, and the io and click methods their frameworks call.
A name below is used where vulture does not look. Anything vulture reports beyond these is
dead: delete it, do not add it here without a reason.
"""

_ = object()

# Read by the tests' meta-checks (a hook beside its check, the categories of every entry, every
# collective step named), not by the package: the tests hold the package to them.
_.area_of  # areas/registry.py
_.all_hooks  # areas/registry.py
_.CATEGORIES  # kb/taxonomy.py
_.COLLECTIVE_STEPS  # verbs/dist/conditions/collectives.py
_.to_python  # verbs/lint/ipython.py
_.api_table  # verbs/lint/output.py: README's table, which a test keeps equal to it
_.source_text  # verbs/lint/history.py
_.known_paths  # verbs/lint/history.py
_.versions_named  # verbs/lint/history.py
_.SUBJECTS  # verbs/lint/rules/__init__.py: the subjects a rule may take, which the meta-test holds every rule to
_.toolchain_facts  # gather/compile.py: the preflight child's toolchain-only mode, run by the cache-folder test

# Record fields: part of the record's shape (its repr, equality, what a caller may read).
_.stdout_truncated  # children/timed.py ProcResult
_.stderr_truncated  # children/timed.py ProcResult
_.examples  # kb/errors.py Entry: the real examples every known error carries

# Set for Python itself: what a record class gives its instances (records.py).
_.__repr__
_.__eq__
_.__hash__
_.__match_args__

# A type alias used in string annotations.
_.Paste  # gather/paste/lines.py

# Signatures fixed by the caller: a signal handler's frame, pytest's session argument,
# libcst's METADATA_DEPENDENCIES, and torch's own settings the tune worker writes.
_.frame
_.session
_.METADATA_DEPENDENCIES  # verbs/lint/fix.py
_.allow_tf32  # verbs/tune/worker.py: torch.backends.cuda.matmul.allow_tf32 = ...
