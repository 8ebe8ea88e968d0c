@NullMarked
package io.switchboard.queue;

import org.jspecify.annotations.NullMarked;
