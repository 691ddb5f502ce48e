#ifndef GESTURED_CREDENTIALS_H
#define GESTURED_CREDENTIALS_H

#include <stddef.h>
#include <sys/types.h>

/* Apart from CGesturedShim.h (which needs libevdev's headers) so that the tests can compile
 * credentials.c alone for another word size (gcc -m32). */

/* Another user for the child of gestured_spawn(): exactly `groups` as supplementary groups,
 * `gid` and `uid` as real, effective and saved ids. The caller must be root and resolves the
 * user (getpwnam_r, getgrouplist) beforehand. */
struct gestured_credentials {
  uid_t uid;
  gid_t gid;
  const gid_t *groups;
  size_t group_count;
};

/* Takes `credentials` for the calling process: groups, then gid, then uid (once the uid is
 * dropped, the others can no longer be changed). Returns NULL, or the name of the call that
 * failed with errno set. Why C: the calls must be raw system calls (glibc's wrappers
 * broadcast credential changes to every thread, and after vfork those are the daemon's),
 * and on i386 and armhf the plain numbers are the 16-bit calls (uid 65536 would become 0):
 * the 32-bit ones are SYS_setgroups32, SYS_setresgid32, SYS_setresuid32 there. Only raw
 * system calls: it runs in the vfork child. */
const char *gestured_set_credentials(const struct gestured_credentials *credentials);

#endif
