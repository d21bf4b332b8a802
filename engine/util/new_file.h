// Writing a file that nobody else can have prepared: a symbolic link planted at the name (to make
// advisor overwrite the file it points at) or a file left there is an error, never followed or
// truncated.
#pragma once

#include <sys/types.h>

#include <string>

namespace advisor {

// Creates `path` with O_CREAT | O_EXCL | O_NOFOLLOW, writes `content` whole and fsyncs it (so that
// a rename after it publishes either nothing or all of it). Returns 0, or the errno of the first
// call that failed (EEXIST when anything is at `path`); a file it created and could not fill is
// removed again.
int WriteNewFile(const std::string& path, const std::string& content, mode_t mode = 0644);
// The same with `path` relative to the open folder `folder_fd` (openat(2)): folder_handle.h.
int WriteNewFileAt(int folder_fd, const std::string& path, const std::string& content,
                   mode_t mode = 0644);

}  // namespace advisor
