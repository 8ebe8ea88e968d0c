@NullMarked
package io.switchboard.queue.spi;

import org.jspecify.annotations.NullMarked;
