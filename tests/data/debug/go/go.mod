module example.com/debugfixture

go 1.19
