#!/usr/bin/env python3
"""Generates the tracer's MPI wrappers from mpi_calls.def.

    generate_wrappers.py mpi_calls.def OUT.cpp

For every call of the table it writes the C wrapper MPI_X (record around
PMPI_X) and the Fortran wrapper mpi_x_ (record around pmpi_x_: Open MPI's
Fortran bindings call the C PMPI_ entry points directly, so the C wrappers
never see a Fortran program's calls). What a role records is said once here,
for each language; what a kind records is said once in recorder.cpp.
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


def read_table(path):
    calls = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{number}"
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3:
                sys.exit(f"{where}: expected 'Kind | MPI_Name | arguments'")
            kind, name, arguments = parts
            args = [Arg(a, where) for a in split_args(arguments)] if arguments else []
            calls.append(Call(kind, name, args))
    return calls


def split_args(text):
    return [a for a in (p.strip() for p in text.split(",")) if a]


def c_pre(a):
    r, n = a.role, a.name
    if r == "sbuf":
        return [f"call.send_in_place = {n} == MPI_IN_PLACE;"]
    if r == "rbuf":
        return [f"call.recv_in_place = {n} == MPI_IN_PLACE;"]
    if r in INT_FIELDS:
        return [f"call.{INT_FIELDS[r]} = {n};"]
    if r in TYPE_FIELDS:
        return [f"call.{TYPE_FIELDS[r]} = {n};"]
    if r in COUNTS_FIELDS:
        return [f"call.{COUNTS_FIELDS[r]} = {n};"]
    if r == "comm":
        return [f"call.comm = {n};"]
    if r == "freecomm":
        return [f"call.comm = *{n};"]
    if r == "inrequest":
        return [f"call.requests.assign(1, *{n});"]
    if r == "requests":
        return [f"call.requests.assign({n}, {n} + (call.request_count > 0 ? call.request_count : 0));"]
    if r == "status":
        return ["MPI_Status own_status;", f"if ({n} == MPI_STATUS_IGNORE) {n} = &own_status;"]
    if r == "statuses":
        return ["std::vector<MPI_Status> own_statuses;",
                f"if ({n} == MPI_STATUSES_IGNORE) {{",
                "  own_statuses.resize(call.request_count > 0 ? static_cast<std::size_t>(call.request_count) : 0);",
                f"  {n} = own_statuses.data();", "}"]
    return []


def c_post(a):
    r, n = a.role, a.name
    if r == "newcomm":
        return [f"call.new_comm = *{n};"]
    if r == "request":
        return [f"call.new_request = *{n};"]
    if r == "index":
        return [f"call.index = *{n};"]
    if r == "outcount":
        return [f"call.outcount = *{n};"]
    if r == "indices":
        return [f"if (call.outcount > 0) call.indices.assign({n}, {n} + call.outcount);"]
    if r == "flag":
        return [f"call.flag = *{n} != 0;"]
    if r == "status":
        return [f"call.statuses.assign(1, *{n});"]
    if r == "statuses":
        return [f"if (call.request_count > 0) call.statuses.assign({n}, {n} + call.request_count);"]
    return []


def f_pre(a):
    r, n = a.role, a.name
    if r == "sbuf":
        return [f"call.send_in_place = fortran::is_in_place({n});"]
    if r == "rbuf":
        return [f"call.recv_in_place = fortran::is_in_place({n});"]
    if r in INT_FIELDS:
        return [f"call.{INT_FIELDS[r]} = *{n};"]
    if r in TYPE_FIELDS:
        return [f"call.{TYPE_FIELDS[r]} = PMPI_Type_f2c(*{n});"]
    if r in COUNTS_FIELDS:
        return [f"call.{COUNTS_FIELDS[r]} = {n};"]
    if r in ("comm", "freecomm"):
        return [f"call.comm = PMPI_Comm_f2c(*{n});"]
    if r == "inrequest":
        return [f"call.requests.assign(1, PMPI_Request_f2c(*{n}));"]
    if r == "requests":
        return [f"for (int i = 0; i < call.request_count; ++i) call.requests.push_back(PMPI_Request_f2c({n}[i]));"]
    if r == "status":
        return ["std::vector<MPI_Fint> own_status;",
                f"if (fortran::is_status_ignore({n})) {{",
                "  own_status.resize(fortran::kStatusInts);",
                f"  {n} = own_status.data();", "}"]
    if r == "statuses":
        return ["std::vector<MPI_Fint> own_statuses;",
                f"if (fortran::is_statuses_ignore({n})) {{",
                "  own_statuses.resize(fortran::kStatusInts * static_cast<std::size_t>(call.request_count > 0 ? call.request_count : 0));",
                f"  {n} = own_statuses.data();", "}"]
    return []


def f_post(a):
    r, n = a.role, a.name
    if r == "newcomm":
        return [f"call.new_comm = PMPI_Comm_f2c(*{n});"]
    if r == "request":
        return [f"call.new_request = PMPI_Request_f2c(*{n});"]
    if r == "index":
        return [f"call.index = *{n} == MPI_UNDEFINED ? MPI_UNDEFINED : *{n} - 1;  // Fortran counts from 1"]
    if r == "outcount":
        return [f"call.outcount = *{n};"]
    if r == "indices":
        return [f"for (int i = 0; i < call.outcount; ++i) call.indices.push_back({n}[i] - 1);"]
    if r == "flag":
        return [f"call.flag = *{n} != 0;"]
    if r == "status":
        return [f"call.statuses.assign(1, fortran::status_to_c({n}));"]
    if r == "statuses":
        return [f"for (int i = 0; i < call.request_count; ++i) call.statuses.push_back(fortran::status_to_c({n} + fortran::kStatusInts * i));"]
    return []


def grouping(call):
    """A CommSplit without a color argument records the groups the call made."""
    if call.kind == "CommSplit" and not any(a.role == "color" for a in call.args):
        return ["call.split_from_result = true;"]
    return []


def indent(lines, spaces=2):
    return "\n".join(" " * spaces + line for line in lines)


def c_wrapper(call):
    params = ", ".join(a.decl for a in call.args) or "void"
    names = ", ".join(a.name for a in call.args)
    pre = [line for a in call.args for line in c_pre(a)]
    post = [line for a in call.args for line in c_post(a)]
    body = []
    if call.kind not in ("Init", "Finalize"):  # these start and end the recorder, and report its errors
        body.append(f"if (!recorder_active()) return P{call.name}({names});")
    body.append(f'Call call(Kind::{call.kind}, "{call.name}");')
    body += grouping(call)
    body += pre
    body.append("call.begin();")
    body.append(f"int result = P{call.name}({names});")
    body += post
    body.append("call.end(result);")
    body.append("return result;")
    return f"extern \"C\" PERFCAST_TRACE_EXPORT int {call.name}({params}) {{\n{indent(body)}\n}}\n"


def fortran_wrapper(call):
    args = [a for a in call.args if a.role != "cargs"]
    lower = call.name.lower()
    params = ", ".join([a.fortran_decl() for a in args] + ["MPI_Fint* ierr"])
    names = ", ".join([a.name for a in args] + ["ierr"])
    pre = [line for a in args for line in f_pre(a)]
    post = [line for a in args for line in f_post(a)]
    body = [f"if (!p{lower}_) {{  // not a Fortran program: the bindings are not loaded",
            "  *ierr = MPI_ERR_INTERN;", "  return;", "}"]
    if call.kind not in ("Init", "Finalize"):
        body += ["if (!recorder_active()) {", f"  p{lower}_({names});", "  return;", "}"]
    body.append(f'Call call(Kind::{call.kind}, "{call.name}");')
    body += grouping(call)
    body += pre
    body.append("call.begin();")
    body.append(f"p{lower}_({names});")
    body += post
    body.append("call.end(*ierr);")
    return (f"extern \"C\" void p{lower}_({params}) __attribute__((weak));\n"
            f"extern \"C\" PERFCAST_TRACE_EXPORT void {lower}_({params}) {{\n{indent(body)}\n}}\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: generate_wrappers.py mpi_calls.def OUT.cpp")
    calls = read_table(sys.argv[1])
    out = ["// Generated by generate_wrappers.py from mpi_calls.def: do not edit.",
           "#include <mpi.h>", "", "#include <cstddef>", "#include <vector>", "",
           '#include "trace/fortran_handles.h"', '#include "trace/recorder.h"', "",
           "using namespace perfcast::trace;  // NOLINT: generated code", "using perfcast::events::Kind;", "",
           "// C bindings.", ""]
    out += [c_wrapper(c) for c in calls]
    out += ["// Fortran bindings (mpif.h and `use mpi`; gfortran's names: lower case, one underscore).", ""]
    out += [fortran_wrapper(c) for c in calls]
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
