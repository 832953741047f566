"""Generators of program models (docs/program-model.md) as Python objects for json.dumps.

Valid models: expressions are built so that every count is finite and >= 0 for every
rank (sums and products of non-negative terms, min/max, floordiv and mod by positive
constants, select on the rank). Counts may depend on the rank; MPI calls may not be
inside a rank-dependent branch, and their sizes and loop trips are the same on every
rank, so every rank makes the same sequence of calls: collectives meet, and a ring
exchange (receive from the left, send to the right, wait for both) always pairs up.
"""

MPI_COLLECTIVES = ["barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter"]


class ModelGen:
    def __init__(self, rng, double_only=False):
        self.rng = rng
        self.double_only = double_only  # flops_double only: no single precision, no math calls
        self.params = [f"p{i}" for i in range(rng.randint(1, 3))]
        self.lets = []
        self.line = 100

    def next_line(self):
        self.line += 1
        return self.line

    # ---- expressions ----
    def expr(self, depth=2, names=(), rank_ok=True):
        """A non-negative expression over the parameters, `names` (loop variables,
        lets, callee parameters) and, where rank_ok, the rank and the size."""
        rng = self.rng
        pool = list(self.params) + list(names)
        if depth <= 0 or rng.random() < 0.3:
            x = rng.random()
            if x < 0.4:
                return str(rng.choice([0, 1, 2, 3, 8, 64, 1000]))
            if x < 0.85 or not rank_ok:
                return rng.choice(pool)
            return rng.choice(["rank", "size"])
        a = self.expr(depth - 1, names, rank_ok)
        b = self.expr(depth - 1, names, rank_ok)
        form = rng.choice(["+", "*", "max", "min", "floordiv", "mod", "select"] if rank_ok else
                          ["+", "*", "max", "min", "floordiv", "mod"])
        if form == "+":
            return f"({a} + {b})"
        if form == "*":
            return f"({a} * {rng.choice([1, 2, 4, 16])})"
        if form in ("max", "min"):
            return f"{form}({a}, {b})"
        if form == "floordiv":
            return f"floordiv({a}, {rng.choice([1, 2, 3, 7])})"
        if form == "mod":
            return f"mod({a}, {rng.choice([2, 5, 16])})"
        return f"select(rank < {rng.choice([1, 2, 3])}, {a}, {b})"

    # ---- items ----
    def compute(self, names):
        rng = self.rng
        item = {"kind": "compute", "line": self.next_line()}
        scale = rng.choice(["", " * 1000", " * 100000"])
        item["flops_double"] = self.expr(2, names) + scale
        if not self.double_only:
            if rng.random() < 0.3:
                item["flops_single"] = self.expr(1, names) + scale
            if rng.random() < 0.2:
                item["math"] = {rng.choice(["sin", "exp", "sqrtf", "pow"]): self.expr(1, names)}
        if rng.random() < 0.6:
            item["load_bytes"] = self.expr(2, names) + rng.choice(["", " * 8", " * 80000"])
            item["loads"] = self.expr(1, names)
        if rng.random() < 0.4:
            item["store_bytes"] = self.expr(1, names) + rng.choice(["", " * 8", " * 8000"])
            item["stores"] = self.expr(1, names)
        return item

    def mpi_block(self, names):
        """MPI calls every rank makes alike: a collective, or a ring exchange."""
        rng = self.rng
        size_expr = self.expr(1, names, rank_ok=False) + rng.choice(["", " * 8", " * 8192"])
        if rng.random() < 0.5:
            op = rng.choice(MPI_COLLECTIVES)
            item = {"kind": "mpi", "line": self.next_line(), "op": op}
            if op != "barrier":
                item["bytes"] = size_expr
            if op in ("bcast", "reduce", "gather", "scatter"):
                item["root"] = rng.choice(["0", "size - 1", "floordiv(size, 2)"])
            if rng.random() < 0.2:
                item["count"] = str(rng.randint(0, 3))
            return [item]
        if rng.random() < 0.25:  # each rank sends right and receives from whoever sends to it
            return [{"kind": "mpi", "line": self.next_line(), "op": "sendrecv", "peer": "mod(rank + 1, size)",
                     "bytes": size_expr}]
        left, right = "mod(rank + size - 1, size)", "mod(rank + 1, size)"
        if rng.random() < 0.2:  # MPI_PROC_NULL at the ends of a line instead of a ring
            left, right = "select(rank > 0, rank - 1, -1)", "select(rank < size - 1, rank + 1, -1)"
        return [{"kind": "mpi", "line": self.next_line(), "op": "irecv", "peer": left, "bytes": size_expr},
                {"kind": "mpi", "line": self.next_line(), "op": "isend", "peer": right, "bytes": size_expr},
                {"kind": "mpi", "line": self.next_line(), "op": "waitall"}]

    def body(self, depth, names, mpi_ok, functions):
        rng = self.rng
        items = []
        for _ in range(rng.randint(1, 3)):
            x = rng.random()
            if x < 0.4 or depth <= 0:
                items.append(self.compute(names))
            elif x < 0.6:
                var = f"i{self.next_line()}"
                # Trips of a loop that holds MPI calls: the same on every rank, and few.
                inner_mpi = mpi_ok and rng.random() < 0.5
                trips = (str(rng.randint(0, 4)) if inner_mpi else self.expr(1, names, rank_ok=True))
                items.append({"kind": "loop", "line": self.next_line(), "var": var, "trip_count": trips,
                              "body": self.body(depth - 1, list(names) + [var], inner_mpi, functions)})
            elif x < 0.72:
                b = {"kind": "branch", "line": self.next_line()}
                if rng.random() < 0.5:
                    b["condition"] = f"rank < {rng.randint(0, 3)}"
                else:
                    b["probability"] = rng.choice([0, 0.25, 1])
                b["then"] = self.body(depth - 1, names, False, functions)
                if rng.random() < 0.5:
                    b["else"] = self.body(depth - 1, names, False, functions)
                items.append(b)
            elif x < 0.84 and functions:
                callee = rng.choice(sorted(functions))
                args = {a: self.expr(1, names, rank_ok=not mpi_ok) for a in functions[callee]}
                items.append({"kind": "call", "line": self.next_line(), "function": callee, "args": args})
            elif mpi_ok:
                items.extend(self.mpi_block(names))
            else:
                items.append(self.compute(names))
        return items

    def model(self):
        rng = self.rng
        parameters = {p: {"description": "generated", "default": str(rng.randint(0, 50))} for p in self.params}
        lets = []
        if rng.random() < 0.5:
            lets.append(["l0", self.expr(2)])
        names = [l[0] for l in lets]
        # Helpers without MPI calls (callable from anywhere), each with one parameter.
        functions = {}
        helpers = {}
        for k in range(rng.randint(0, 2)):
            name = f"helper{k}"
            body = self.body(1, ["a"], False, dict(helpers))
            functions[name] = {"line": self.next_line(), "parameters": ["a"], "body": body}
            helpers[name] = ["a"]
        functions["main"] = {"line": 1, "body": self.body(2, names, True, helpers)}
        return {"format": "perfcast-program-model", "version": 1, "program": "generated",
                "origin": "tests/property", "parameters": parameters, "let": lets,
                "entry": "main", "functions": functions}


def add_work(model, rng):
    """The same model with more work on one rank: a compute item at the start of main
    that only that rank runs. Returns (model, rank)."""
    import copy
    m = copy.deepcopy(model)
    rank = rng.randrange(4)
    flops = rng.choice([1e3, 1e6, 1e9])
    item = {"kind": "compute", "line": 9999, "flops_double": f"select(rank == {rank}, {flops!r}, 0)"}
    if rng.random() < 0.3:
        item["load_bytes"] = f"select(rank == {rank}, 80000000, 0)"
    body = m["functions"]["main"]["body"]
    body.insert(rng.randrange(len(body) + 1), item)
    return m, rank
