#include "server/tools_command.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <iostream>

#include "server/doors/mcp.h"
#include "server/ops/operations.h"
#include "support/lock_chain.h"

namespace editd {

using nlohmann::json;

json tool_definitions(const Registry& registry, ToolsFormat format, McpTools mcp_tools) {
  if (format == ToolsFormat::kMcp) return mcp::tools_list(registry, mcp_tools == McpTools::kAll);
  json tools = json::array();
  for (const Method& m : registry.methods()) {
    // As tools/list: the symbol tools only where a language server is given.
    if (m.needs_language_server && !registry.has_language_servers()) continue;
    // The provider's own tool stands for its native method; the other
    // provider's is left out (its input is not this API's).
    if (m.name == "anthropic_text_editor") {
      if (format == ToolsFormat::kAnthropic)
        tools.push_back(
            {{"type", "text_editor_20250728"}, {"name", "str_replace_based_edit_tool"}});
      continue;
    }
    if (m.name == "openai_apply_patch") {
      if (format == ToolsFormat::kOpenAi) tools.push_back({{"type", "apply_patch"}});
      continue;
    }
    // The model calls OpenAI's own tool apply_patch: a function of the same
    // name beside it would make two (the model is trained on the native one).
    if (format == ToolsFormat::kOpenAi && m.name == "apply_patch") continue;
    if (format == ToolsFormat::kAnthropic) {
      tools.push_back(
          {{"name", m.name}, {"description", m.description}, {"input_schema", m.input_schema}});
    } else {
      // Not strict: strict mode wants every property required, and most of
      // editd's are optional.
      tools.push_back({{"type", "function"},
                       {"name", m.name},
                       {"description", m.description},
                       {"parameters", m.input_schema},
                       {"strict", false}});
    }
  }
  return tools;
}

int run_tools(const CommandLine& cl) {
  // The registry binds each method to an Operations, which nothing here runs.
  boost::asio::io_context io;
  boost::asio::thread_pool pool(1);
  LockChains locks;
  Operations ops(cl.options.ops, locks, pool);
  const Registry registry(ops);
  std::cout << tool_definitions(registry, cl.tools_format, cl.options.doors.mcp_tools).dump(2)
            << "\n";
  pool.join();
  return std::cout.good() ? 0 : 1;
}

}  // namespace editd
