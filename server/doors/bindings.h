// The doors' translation between the wire and the core: a method's decoded
// params (protocol/methods.h) into the operation's request (server/ops/
// requests.h), and the operation's outcome back into the wire's result.
//
// Every mode the wire spells as a string (format, lineEndings, matching, an
// edit's kind) becomes an enum here, once; protocol/methods.cpp's decode has
// already refused any other string with invalid_params naming the param. The
// registry binds decode -> to_ops -> the operation -> to_wire -> to_json
// (server/doors/registry.cpp); the provider adapters build requests of their
// own and read the outcomes through to_wire as well.
#pragma once

#include "protocol/methods.h"
#include "server/checks/diagnostics.h"
#include "server/ops/requests.h"

namespace editd {

ops::ReadRequest to_ops(protocol::ReadTextParams p);
ops::WriteRequest to_ops(protocol::WriteTextParams p);
ops::CreateRequest to_ops(protocol::CreateParams p);
ops::InsertRequest to_ops(protocol::InsertParams p);
ops::FormatRequest to_ops(protocol::SetFormatParams p);
ops::ReplaceRequest to_ops(protocol::StrReplaceParams p);
ops::LineEditsRequest to_ops(protocol::EditLinesParams p);
ops::FingerprintRequest to_ops(protocol::FingerprintParams p);
// The paths inside the patch are held to protocol::path_problem, as a path param is.
ops::PatchRequest to_ops(protocol::ApplyPatchParams p);
ops::UndoRequest to_ops(protocol::UndoParams p);
ops::SymbolsRequest to_ops(protocol::ReadSymbolsParams p);
ops::SymbolEditRequest to_ops(protocol::EditSymbolParams p);

protocol::ReadTextResult to_wire(ops::Read r);
protocol::MutationResult to_wire(ops::Mutation r);
protocol::FingerprintResult to_wire(ops::Fingerprint r);
protocol::ApplyPatchResult to_wire(ops::Patched r);
protocol::DiagnosticsReport to_wire(diagnostics::Report r);
protocol::ReadSymbolsResult to_wire(ops::Symbols r);

}  // namespace editd
