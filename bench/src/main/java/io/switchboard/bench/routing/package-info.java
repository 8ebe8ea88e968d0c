@NullMarked
package io.switchboard.bench.routing;

import org.jspecify.annotations.NullMarked;
