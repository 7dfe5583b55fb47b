"""The child processes the doctor starts, and what keeps them in bounds: timed.py runs one
to its end or its time limit (output kept as a tail, never a pipe that can fill), and
lifeline.py is the guard that ends a program's process group when the doctor dies without
releasing it (`run`, the `dist` launcher). Both are used by gather/, verbs/ and surfaces/
alike, so they belong to none of them; lifeline.py also runs alone as a stdlib-only script."""
