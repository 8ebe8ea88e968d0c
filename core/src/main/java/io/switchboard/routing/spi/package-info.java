@NullMarked
package io.switchboard.routing.spi;

import org.jspecify.annotations.NullMarked;
