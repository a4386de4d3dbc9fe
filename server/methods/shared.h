// What several method families share on the wire: a mutation's common params
// and its result, the result of apply_patch and undo (a list of files), a
// symbol, a written file's checks. Each family's own params and fields are
// in its own file.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "protocol/params.h"
#include "server/checks/diagnostics.h"
#include "server/ops/requests.h"

namespace editd::methods {

// path, expectedFingerprint and dryRun, and a sessionId that is a string
// when given (the connection reads it: server/doors/acp_door.h).
void decode_mutation(protocol::ParamDecoder& d, ops::MutationRequest& out);
// The `format` param of a method that writes text (schemas.h's format_param).
void decode_format(protocol::ParamDecoder& d, bool& out);
// A format report's fields (formatStatus, formatDetail, formatted) into `j`.
void put_format(nlohmann::json& j, const std::optional<ops::FormatReport>& r);
// Checks only the sessionId of a method that is not a mutation.
void decode_session(protocol::ParamDecoder& d);

nlohmann::json encode_mutation(ops::Mutation m);
nlohmann::json encode_patched(ops::Patched p);
// {namePath, kind, startLine, endLine, depth}.
nlohmann::json encode_symbol(const ops::SymbolLines& s);
// The checks' fields of a written file (diagnostics, introduced,
// diagnosticsStatus, diagnosticsDetail), when there is a report.
void put_diagnostics(nlohmann::json& j, const std::optional<diagnostics::Report>& r);

}  // namespace editd::methods
