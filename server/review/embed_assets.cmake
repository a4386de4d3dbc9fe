# Writes the C++ source behind server/review/assets.h: every file the review page serves, its
# bytes as a string literal of hex escapes. Run by CMake at build time (CMakeLists.txt,
# editd_review_assets):
#
#   cmake -DWEB=server/review/web -DNPM=BUILD/review-web -DOUT=FILE.cpp -P embed_assets.cmake
#
# WEB's *.html, *.js, *.css and *.svg (index.html is "/", the others "/assets/NAME"), and
# diff2html's browser bundle from NPM/node_modules (npm ci).
foreach(var WEB NPM OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_assets.cmake: -D${var}= is missing")
  endif()
endforeach()

set(diff2html "${NPM}/node_modules/diff2html/bundles")
file(GLOB page LIST_DIRECTORIES false "${WEB}/*.html" "${WEB}/*.js" "${WEB}/*.css" "${WEB}/*.svg")
list(SORT page)
set(files ${page} "${diff2html}/js/diff2html.min.js" "${diff2html}/css/diff2html.min.css")

set(body "")
set(table "")
set(n 0)
foreach(file IN LISTS files)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "embed_assets.cmake: ${file} is missing (did npm ci run?)")
  endif()
  get_filename_component(name "${file}" NAME)
  get_filename_component(ext "${file}" LAST_EXT)
  if(name STREQUAL "index.html")
    set(path "/")
  else()
    set(path "/assets/${name}")
  endif()
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js")
    set(type "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(type "image/svg+xml")
  else()
    message(FATAL_ERROR "embed_assets.cmake: no content type for ${file}")
  endif()
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  # "\xNN" a byte, 64 bytes a line (CMake's regular expressions have no {64}).
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(REPEAT "\\\\x[0-9a-f][0-9a-f]" 64 line)
  string(REGEX REPLACE "(${line})" "\\1\"\n    \"" escaped "${escaped}")
  string(APPEND body "// ${path}: ${file}\nconstexpr char kAsset${n}[] =\n    \"${escaped}\";\n\n")
  string(APPEND table "    {\"${path}\", \"${type}\", {kAsset${n}, ${size}}},\n")
  math(EXPR n "${n} + 1")
endforeach()

set(content "// Written by server/review/embed_assets.cmake: do not edit.
#include \"server/review/assets.h\"

namespace editd::review {
namespace {

${body}constexpr Asset kAssets[] = {
${table}};

}  // namespace

const Asset* find_asset(std::string_view path) {
  for (const Asset& asset : kAssets) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

}  // namespace editd::review
")

file(WRITE "${OUT}" "${content}")
