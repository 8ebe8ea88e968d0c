@NullMarked
package io.switchboard.client;

import org.jspecify.annotations.NullMarked;
