// `editd tools`: the method registry's tools as a host or an API request takes
// them, so that hosts that configure tools by hand need no hand-written schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "server/options.h"
#include "server/doors/registry.h"

namespace editd {

// The registry's methods as tool definitions in `format`, each name once:
// - "mcp": what tools/list answers with --mcp-tools `mcp_tools`, {"tools":
//   [{name, title, description, inputSchema, outputSchema, annotations}]};
// - "anthropic": the Messages API's `tools`, [{name, description, input_schema}],
//   with Anthropic's text editor tool for anthropic_text_editor;
// - "openai": the Responses API's function tools, [{type: "function", name,
//   description, parameters, strict: false}], with OpenAI's own apply_patch
//   tool for openai_apply_patch in place of the apply_patch function.
nlohmann::json tool_definitions(const Registry& registry, std::string_view format,
                                std::string_view mcp_tools = "models");

// Prints tool_definitions for cl.tools_format on stdout; returns the exit code.
int run_tools(const CommandLine& cl);

}  // namespace editd
