@NullMarked
package io.switchboard.server;

import org.jspecify.annotations.NullMarked;
