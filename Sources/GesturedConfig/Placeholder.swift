// Config parsing lives here.
