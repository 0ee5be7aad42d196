module quotient.dev/kai-translate

go 1.26
