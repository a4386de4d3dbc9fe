// editd's methods, a row each (server/methods/method.h), one family to a
// file: server/methods/read_text.cpp holds read_text's row, its decode, its
// encode and its text. The provider-native tools' rows are their adapters'
// (server/doors/anthropic_text_editor.h, server/doors/openai_apply_patch.h);
// the table of them all is server/doors/registry.cpp.
#pragma once

#include "server/methods/method.h"

namespace editd::methods {

Method read_text();
Method write_text();  // write_text.cpp
Method create();      // write_text.cpp
Method set_format();
Method insert();
Method str_replace();
Method edit_lines();
Method apply_patch();
Method undo();
Method changes();
Method revert();
Method fingerprint();
Method read_symbols();  // symbols.cpp
Method edit_symbol();   // symbols.cpp
Method move();          // files.cpp
Method copy();          // files.cpp
Method delete_();       // files.cpp: "delete"
Method list();
Method search();

}  // namespace editd::methods
