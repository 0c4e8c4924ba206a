// Prints emb/version.h's string and its numbers (version.test).
#include "emb/version.h"

#include <stdio.h>

int main(void) {
  printf("%s %d.%d.%d\n", EMB_VERSION_STRING, EMB_VERSION_MAJOR,
         EMB_VERSION_MINOR, EMB_VERSION_PATCH);
  return 0;
}
