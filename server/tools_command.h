// `editd tools`: the method registry's tools as a host or an API request takes
// them, so that hosts that configure tools by hand need no hand-written schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "server/doors/registry.h"
#include "server/options.h"

namespace editd {

// The registry's methods as tool definitions in `format`, each name once:
// - kMcp: what tools/list answers with --mcp-tools `mcp_tools`, {"tools":
//   [{name, title, description, inputSchema, outputSchema, annotations}]};
// - kAnthropic: the Messages API's `tools`, [{name, description, input_schema}],
//   with Anthropic's text editor tool for anthropic_text_editor;
// - kOpenAi: the Responses API's function tools, [{type: "function", name,
//   description, parameters, strict: false}], with OpenAI's own apply_patch
//   tool for openai_apply_patch in place of the apply_patch function.
nlohmann::json tool_definitions(const Registry& registry, ToolsFormat format,
                                McpTools mcp_tools = McpTools::kModels);

// Prints tool_definitions for cl.tools_format on stdout; returns the exit code.
int run_tools(const CommandLine& cl);

}  // namespace editd
