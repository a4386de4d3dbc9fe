#include "server/review/assets.h"

#include <doctest/doctest.h>

#include <string_view>

using editd::review::find_asset;

TEST_CASE("the review page's index is / and holds the token's placeholder") {
  const auto* index = find_asset("/");
  REQUIRE(index != nullptr);
  CHECK(index->content_type == "text/html; charset=utf-8");
  CHECK(index->bytes.find("<meta name=\"editd-token\" content=\"{{TOKEN}}\">") != std::string_view::npos);
  CHECK(index->bytes.find("/assets/app.js?token={{TOKEN}}") != std::string_view::npos);
  CHECK(find_asset("/index.html") == nullptr);
}

TEST_CASE("the review page's script, style and diff2html are under /assets/ with their types") {
  for (std::string_view path : {"/assets/app.js", "/assets/diff2html.min.js"}) {
    const auto* asset = find_asset(path);
    REQUIRE_MESSAGE(asset != nullptr, path);
    CHECK(asset->content_type == "text/javascript; charset=utf-8");
    CHECK(asset->bytes.size() > 1000);
  }
  for (std::string_view path : {"/assets/app.css", "/assets/diff2html.min.css"}) {
    const auto* asset = find_asset(path);
    REQUIRE_MESSAGE(asset != nullptr, path);
    CHECK(asset->content_type == "text/css; charset=utf-8");
  }
  CHECK(find_asset("/assets/diff2html.min.js")->bytes.find("Diff2Html") != std::string_view::npos);
}

TEST_CASE("a path that is no asset finds nothing") {
  CHECK(find_asset("") == nullptr);
  CHECK(find_asset("/assets/") == nullptr);
  CHECK(find_asset("/assets/../index.html") == nullptr);
  CHECK(find_asset("/assets/package.json") == nullptr);
  CHECK(find_asset("/assets/app.js?token=x") == nullptr);
}
