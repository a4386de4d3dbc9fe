// The review page's files (editd review), in the binary: server/review/web/ (index.html, app.js,
// app.css) and diff2html's browser bundle from npm, pinned by server/review/web/package-lock.json.
// The build fetches the npm packages (npm ci) and writes every file's bytes into a generated
// source (server/review/embed_assets.cmake, the library editd_review_assets), so the page works
// with no network and no files beside the binary.
//
// index.html holds the placeholder {{TOKEN}} wherever the token must be; the server replaces it.
#pragma once

#include <string_view>

namespace editd::review {

struct Asset {
  std::string_view path;          // "/" (index.html) or "/assets/NAME"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view bytes;
};

// "/assets/app.js" etc.; "/" is index.html. nullptr when there is none.
const Asset* find_asset(std::string_view path);

}  // namespace editd::review
