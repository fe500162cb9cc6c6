// libsrtp2's header (Debian: libsrtp2-dev, pkg-config libsrtp2), as Swift imports it. Nothing is linked:
// CSRTPLoader opens the library when the first receiver is made.
#include <srtp2/srtp.h>
