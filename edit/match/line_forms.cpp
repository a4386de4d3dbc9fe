#include "edit/match/line_forms.h"

#include "edit/text/chars.h"

namespace editd::match {

std::string_view in_form(LineForm form, std::string_view line, std::string& out,
                         std::string& scratch) {
  switch (form) {
    case LineForm::kVerbatim:
      return line;
    case LineForm::kTrimEnd:
      return chars::rtrim(line);
    case LineForm::kTrim:
      return chars::trim(line);
    case LineForm::kFolded:
      scratch.clear();
      chars::fold_unicode(line, scratch);
      out.assign(chars::trim(scratch));
      return out;
    case LineForm::kBlankRuns: {
      out.clear();
      bool in_run = false;
      for (char c : chars::trim(line)) {
        if (c == ' ' || c == '\t') {
          if (!in_run) out += ' ';
          in_run = true;
        } else {
          out += c;
          in_run = false;
        }
      }
      return out;
    }
  }
  return line;
}

}  // namespace editd::match
