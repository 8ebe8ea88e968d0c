@NullMarked
package io.switchboard.server.auth;

import org.jspecify.annotations.NullMarked;
