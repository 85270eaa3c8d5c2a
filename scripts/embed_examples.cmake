# Writes a C++ source holding every examples/*.json as text, so the browser app and the Wasm tests
# have the built-in examples without a file system. Run with -DSRC_DIR=... -DOUT=...
file(GLOB files "${SRC_DIR}/*.json")
list(SORT files)
set(body "// Generated from examples/*.json by scripts/embed_examples.cmake. Do not edit.\n#include \"core/graph/examples.h\"\nnamespace arenaplan {\nconst std::vector<Example>& builtin_examples() {\n  static const std::vector<Example> examples = {\n")
foreach(f ${files})
  get_filename_component(stem "${f}" NAME_WE)
  file(READ "${f}" text)
  string(APPEND body "    {\"${stem}\", R\"APJSON(${text})APJSON\"},\n")
endforeach()
string(APPEND body "  };\n  return examples;\n}\n}  // namespace arenaplan\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
