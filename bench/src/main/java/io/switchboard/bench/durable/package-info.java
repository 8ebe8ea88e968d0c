@NullMarked
package io.switchboard.bench.durable;

import org.jspecify.annotations.NullMarked;
