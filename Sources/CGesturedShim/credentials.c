#include "gestured_credentials.h"

#include <sys/syscall.h>
#include <unistd.h>

/* Where the platform has both, the *32 calls take 32-bit ids and the plain ones 16-bit. */
#ifdef SYS_setgroups32
#define GESTURED_SYS_SETGROUPS SYS_setgroups32
#define GESTURED_SYS_SETRESGID SYS_setresgid32
#define GESTURED_SYS_SETRESUID SYS_setresuid32
#else
#define GESTURED_SYS_SETGROUPS SYS_setgroups
#define GESTURED_SYS_SETRESGID SYS_setresgid
#define GESTURED_SYS_SETRESUID SYS_setresuid
#endif

const char *gestured_set_credentials(const struct gestured_credentials *credentials) {
  gid_t gid = credentials->gid;
  uid_t uid = credentials->uid;
  if (syscall(GESTURED_SYS_SETGROUPS, credentials->group_count, credentials->groups) != 0)
    return "setgroups";
  if (syscall(GESTURED_SYS_SETRESGID, gid, gid, gid) != 0) return "setresgid";
  if (syscall(GESTURED_SYS_SETRESUID, uid, uid, uid) != 0) return "setresuid";
  return NULL;
}
