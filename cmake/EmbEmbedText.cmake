# Embeds a text file into C as `const char SYMBOL[]`.
# Usage: cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P EmbEmbedText.cmake
file(READ "${INPUT}" content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n    \"" content "${content}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by cmake/EmbEmbedText.cmake. Do not edit.\n"
  "const char ${SYMBOL}[] =\n    \"${content}\";\n")
