@NullMarked
package io.switchboard.time;

import org.jspecify.annotations.NullMarked;
