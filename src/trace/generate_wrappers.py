#!/usr/bin/env python3
"""Generates the tracer's MPI wrappers from the vocabulary and mpi_calls.def.

    generate_wrappers.py mpi_ops.def mpi_calls.def OUT.cpp

mpi_ops.def (src/support) is the one vocabulary of MPI operations: which
operation a C function makes and which event kind records it. mpi_calls.def
holds what only the tracer needs: each wrapped function's C signature and the
role of each argument. For every call it writes the C wrapper MPI_X (record
around PMPI_X) and the Fortran wrapper mpi_x_ (record around pmpi_x_: Open
MPI's Fortran bindings call the C PMPI_ entry points directly, so the C
wrappers never see a Fortran program's calls). What a role records is said
once here, for each language; what a kind records is said once in recorder.cpp.
"""
import re
import sys

ROLES = {"sbuf", "rbuf", "count", "type", "scount", "stype", "rcount", "rtype", "scounts", "rcounts", "peer",
         "tag", "source", "rtag", "root", "comm", "color", "key", "newcomm", "freecomm", "request", "inrequest",
         "nreq", "requests", "index", "outcount", "indices", "flag", "status", "statuses", "cargs", "-"}

# Roles whose value is a plain int (C) / an MPI_Fint read through a pointer (Fortran).
INT_FIELDS = {"count": "count", "scount": "send_count", "rcount": "recv_count", "peer": "peer", "tag": "tag",
              "source": "source", "rtag": "recv_tag", "root": "root", "color": "color", "key": "key",
              "nreq": "request_count"}
TYPE_FIELDS = {"type": "type", "stype": "send_type", "rtype": "recv_type"}
COUNTS_FIELDS = {"scounts": "send_counts", "rcounts": "recv_counts"}


class Arg:
    def __init__(self, text, where):
        if text.strip() == "...":  # a variadic call's tail: declared, never passed on
            self.role, self.ctype, self.name, self.array, self.decl = "...", "", "", False, "..."
            return
        m = re.fullmatch(r"\s*(.+?)\s*\[([a-z-]+)\]\s*", text)
        if not m:
            sys.exit(f"{where}: argument '{text}' has no [role]")
        decl, self.role = m.group(1), m.group(2)
        if self.role not in ROLES:
            sys.exit(f"{where}: unknown role '{self.role}'")
        m = re.fullmatch(r"(.+?)\s*\b(\w+)\s*(\[\])?", decl)
        if not m:
            sys.exit(f"{where}: cannot read the declaration '{decl}'")
        self.ctype, self.name, self.array = m.group(1).strip(), m.group(2), bool(m.group(3))
        self.decl = decl

    def fortran_decl(self):
        if self.role in ("sbuf", "rbuf") or (self.role == "-" and "void" in self.ctype):
            return f"void* {self.name}"
        return f"MPI_Fint* {self.name}"


class Call:
    def __init__(self, kind, name, args):
        self.kind, self.name, self.args = kind, name, args


class Vocabulary:
    """mpi_ops.def as the generator needs it: the operation each C binding makes,
    and the event kind each operation is recorded as (its own Id, or PERFCAST_MPI_OP_AS's event)."""

    def __init__(self, path):
        self.path, self.kind_of_op, self.op_of_function = path, {}, {}
        with open(path) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
        for macro, args in re.findall(r"^(PERFCAST_MPI_OP_AS|PERFCAST_MPI_OP|PERFCAST_MPI_BINDING)\(([^)]*)\)", text,
                                      flags=re.M):
            fields = [a.strip() for a in args.split(",")]
            if macro == "PERFCAST_MPI_BINDING":
                self.op_of_function[fields[0]] = fields[1]
            else:
                self.kind_of_op[fields[0]] = fields[9] if macro == "PERFCAST_MPI_OP_AS" else fields[0]
        if not self.kind_of_op or not self.op_of_function:
            sys.exit(f"{path}: no PERFCAST_MPI_OP or PERFCAST_MPI_BINDING lines read")

    def kind(self, function, recorded_as, where):
        """The event kind a wrapped function records: its binding's operation's, or for a function the
        vocabulary does not bind, the operation mpi_calls.def records it as."""
        op = self.op_of_function.get(function)
        if op and recorded_as:
            sys.exit(f"{where}: {self.path} binds {function} to {op}: drop '(as {recorded_as})'")
        if not op and not recorded_as:
            sys.exit(f"{where}: {self.path} has no PERFCAST_MPI_BINDING for {function}: add one there, or say "
                     f"which operation it is recorded as, '{function} (as Id)'")
        op = op or recorded_as
        if op not in self.kind_of_op:
            sys.exit(f"{where}: {op} is no operation of {self.path}")
        return self.kind_of_op[op]


def read_table(path, vocabulary):
    calls = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{number}"
            parts = [p.strip() for p in line.split("|")]
            head = re.fullmatch(r"(MPI_\w+)(?:\s+\(as (\w+)\))?", parts[0])
            if len(parts) != 2 or not head:
                sys.exit(f"{where}: expected 'MPI_Name | arguments' or 'MPI_Name (as Id) | arguments'")
            name, arguments = head.group(1), parts[1]
            args = [Arg(a, where) for a in split_args(arguments)] if arguments else []
            calls.append(Call(vocabulary.kind(name, head.group(2), where), name, args))
    return calls


def split_args(text):
    return [a for a in (p.strip() for p in text.split(",")) if a]


# What each role records, before the PMPI call (PRE) and after it (POST): role -> (C lines,
# Fortran lines), `{n}` standing for the argument's name. In Fortran an argument is a pointer
# to MPI_Fint, its handles converted with PMPI_*_f2c, its indices counted from 1.
PRE = {
    "sbuf": (["call.send_in_place = {n} == MPI_IN_PLACE;"], ["call.send_in_place = fortran::is_in_place({n});"]),
    "rbuf": (["call.recv_in_place = {n} == MPI_IN_PLACE;"], ["call.recv_in_place = fortran::is_in_place({n});"]),
    **{role: ([f"call.{field} = {{n}};"], [f"call.{field} = *{{n}};"]) for role, field in INT_FIELDS.items()},
    **{role: ([f"call.{field} = {{n}};"], [f"call.{field} = PMPI_Type_f2c(*{{n}});"])
       for role, field in TYPE_FIELDS.items()},
    **{role: ([f"call.{field} = {{n}};"],) * 2 for role, field in COUNTS_FIELDS.items()},
    "comm": (["call.comm = {n};"], ["call.comm = PMPI_Comm_f2c(*{n});"]),
    "freecomm": (["call.comm = *{n};"], ["call.comm = PMPI_Comm_f2c(*{n});"]),
    "inrequest": (["call.requests.assign(1, *{n});"], ["call.requests.assign(1, PMPI_Request_f2c(*{n}));"]),
    "requests": (["call.requests.assign({n}, {n} + (call.request_count > 0 ? call.request_count : 0));"],
                 ["for (int i = 0; i < call.request_count; ++i) call.requests.push_back(PMPI_Request_f2c({n}[i]));"]),
    "status": (["MPI_Status own_status;", "if ({n} == MPI_STATUS_IGNORE) {n} = &own_status;"],
               ["std::vector<MPI_Fint> own_status;",
                "if (fortran::is_status_ignore({n})) {",
                "  own_status.resize(fortran::kStatusInts);",
                "  {n} = own_status.data();", "}"]),
    "statuses": (["std::vector<MPI_Status> own_statuses;",
                  "if ({n} == MPI_STATUSES_IGNORE) {",
                  "  own_statuses.resize(call.request_count > 0 ? static_cast<std::size_t>(call.request_count) : 0);",
                  "  {n} = own_statuses.data();", "}"],
                 ["std::vector<MPI_Fint> own_statuses;",
                  "if (fortran::is_statuses_ignore({n})) {",
                  "  own_statuses.resize(fortran::kStatusInts * static_cast<std::size_t>(call.request_count > 0 ? "
                  "call.request_count : 0));",
                  "  {n} = own_statuses.data();", "}"]),
}
POST = {
    "newcomm": (["call.new_comm = *{n};"], ["call.new_comm = PMPI_Comm_f2c(*{n});"]),
    "request": (["call.new_request = *{n};"], ["call.new_request = PMPI_Request_f2c(*{n});"]),
    "index": (["call.index = *{n};"],
              ["call.index = *{n} == MPI_UNDEFINED ? MPI_UNDEFINED : *{n} - 1;  // Fortran counts from 1"]),
    "outcount": (["call.outcount = *{n};"],) * 2,
    "indices": (["if (call.outcount > 0) call.indices.assign({n}, {n} + call.outcount);"],
                ["for (int i = 0; i < call.outcount; ++i) call.indices.push_back({n}[i] - 1);"]),
    "flag": (["call.flag = *{n} != 0;"],) * 2,
    "status": (["call.statuses.assign(1, *{n});"], ["call.statuses.assign(1, fortran::status_to_c({n}));"]),
    "statuses": (["if (call.request_count > 0) call.statuses.assign({n}, {n} + call.request_count);"],
                 ["for (int i = 0; i < call.request_count; ++i) "
                  "call.statuses.push_back(fortran::status_to_c({n} + fortran::kStatusInts * i));"]),
}
C, FORTRAN = 0, 1


def role_lines(table, language, args):
    """The lines `table` gives the arguments' roles in `language`, in argument order."""
    return [line.replace("{n}", a.name) for a in args for line in table.get(a.role, ([], []))[language]]


def grouping(call):
    """A CommSplit without a color argument records the groups the call made."""
    if call.kind == "CommSplit" and not any(a.role == "color" for a in call.args):
        return ["call.split_from_result = true;"]
    return []


def indent(lines, spaces=2):
    return "\n".join(" " * spaces + line for line in lines)


def recorded(call, args, language, invoke, result):
    """What every wrapper does around its PMPI call, in C and in Fortran alike: the Call of its kind,
    each argument's role recorded before and after (PRE, POST), `invoke` between begin and end."""
    return ([f'Call call(Kind::{call.kind}, "{call.name}");'] + grouping(call)
            + role_lines(PRE, language, args)
            + ["call.begin();", invoke]
            + role_lines(POST, language, args)
            + [f"call.end({result});"])


def c_wrapper(call):
    params = ", ".join(a.decl for a in call.args) or "void"
    names = ", ".join(a.name for a in call.args if a.role != "...")
    body = []
    if call.kind not in ("Init", "Finalize"):  # these start and end the recorder, and report its errors
        body.append(f"if (!recorder_active()) return P{call.name}({names});")
    body += recorded(call, call.args, C, f"int result = P{call.name}({names});", "result")
    body.append("return result;")
    return f"extern \"C\" PERFCAST_TRACE_EXPORT int {call.name}({params}) {{\n{indent(body)}\n}}\n"


def fortran_wrapper(call):
    args = [a for a in call.args if a.role not in ("cargs", "...")]
    lower = call.name.lower()
    # The one variadic call, MPI_Pcontrol, has no error argument in Fortran (MPI_PCONTROL(LEVEL)).
    ierr = [] if any(a.role == "..." for a in call.args) else ["ierr"]
    params = ", ".join([a.fortran_decl() for a in args] + [f"MPI_Fint* {e}" for e in ierr])
    names = ", ".join([a.name for a in args] + ierr)
    body = [f"if (!p{lower}_) {{  // not a Fortran program: the bindings are not loaded",
            *(["  *ierr = MPI_ERR_INTERN;"] if ierr else []), "  return;", "}"]
    if call.kind not in ("Init", "Finalize"):
        body += ["if (!recorder_active()) {", f"  p{lower}_({names});", "  return;", "}"]
    body += recorded(call, args, FORTRAN, f"p{lower}_({names});", "*ierr" if ierr else "MPI_SUCCESS")
    return (f"extern \"C\" void p{lower}_({params}) __attribute__((weak));\n"
            f"extern \"C\" PERFCAST_TRACE_EXPORT void {lower}_({params}) {{\n{indent(body)}\n}}\n")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: generate_wrappers.py mpi_ops.def mpi_calls.def OUT.cpp")
    calls = read_table(sys.argv[2], Vocabulary(sys.argv[1]))
    out = ["// Generated by generate_wrappers.py from mpi_ops.def and mpi_calls.def: do not edit.",
           "#include <mpi.h>", "", "#include <cstddef>", "#include <vector>", "",
           '#include "trace/fortran_handles.h"', '#include "trace/recorder.h"', "",
           "using namespace perfcast::trace;  // NOLINT: generated code", "using perfcast::events::Kind;", "",
           "// C bindings.", ""]
    out += [c_wrapper(c) for c in calls]
    out += ["// Fortran bindings (mpif.h and `use mpi`; gfortran's names: lower case, one underscore).", ""]
    out += [fortran_wrapper(c) for c in calls]
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
