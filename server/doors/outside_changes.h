// Changes made outside a connection, as its dialect tells them: the wire form
// of a notice (docs/protocol.md, "Changes made outside"), and its text for an
// MCP tool result and an ACP session/update. The changes themselves are found
// by Operations::outside_changes (server/ops/outside.cpp), when the session
// asks (server/session/connection.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/ops/requests.h"

namespace editd::outside {

// {path, previousFingerprint (what the connection last read, wrote or was
// told; null: it was gone), fingerprint (null: gone), diff (absent when the
// bytes before are no longer kept), diffTruncated, revertedOwnEdit}.
nlohmann::json notice(const ops::OutsideChange& change);
nlohmann::json notices(const std::vector<ops::OutsideChange>& changes);

// "Changed outside this session:" and a paragraph for each file, its diff
// fenced; `truncated`: more are told on the next replies.
std::string text(const std::vector<ops::OutsideChange>& changes, bool truncated);
// One change's paragraph.
std::string text(const ops::OutsideChange& change);

// Adds the notices to a plain JSON-RPC reply: result.outsideChanges (and
// result.outsideChangesTruncated when true), or error.data.outsideChanges.
// False when the reply has no object to carry them (they wait).
bool attach_plain(nlohmann::json& reply, const std::vector<ops::OutsideChange>& changes,
                  bool truncated);

}  // namespace editd::outside
